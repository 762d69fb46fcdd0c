import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The panel is served by `auditlog serve` under /settings/audit/ from the
// assets committed in dist/ (embedded with go:embed). The output names
// carry a content hash, so a rebuild from the same sources gives the same
// files and CI can diff them.
export default defineConfig({
  base: "/settings/audit/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});
