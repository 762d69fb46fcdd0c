import "@mantine/core/styles.css";
import { MantineProvider, createTheme, type CSSVariablesResolver } from "@mantine/core";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { auth } from "./auth";
import * as firstView from "./firstView";

// Contrast: text on filled buttons, "dimmed" text and an input's error
// meet WCAG AA (4.5:1) in the light scheme (Mantine's defaults, blue 6,
// gray 6 and red 6, do not; the browser test measures them).
const theme = createTheme({ primaryShade: { light: 8, dark: 6 } });
const contrast: CSSVariablesResolver = () => ({ variables: {}, light: { "--mantine-color-dimmed": "var(--mantine-color-gray-7)", "--mantine-color-error": "var(--mantine-color-red-9)" }, dark: {} });

auth.start();
if (auth.token() && !auth.needsReason()) firstView.start(window.location.search);
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="light">
      <App />
    </MantineProvider>
  </StrictMode>,
);
