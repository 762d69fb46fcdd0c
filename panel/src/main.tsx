import "@mantine/core/styles.css";
import { DEFAULT_THEME, MantineProvider, createTheme, type CSSVariablesResolver, type MantineColorsTuple } from "@mantine/core";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { auth } from "./auth";
import * as firstView from "./firstView";

// Contrast: text on filled buttons, "dimmed" text, an input's error, the
// text of subtle and light red buttons (Delete) and orange warnings meet
// WCAG AA (4.5:1) in the light scheme (Mantine's defaults, blue 6, gray
// 6, red 6 and orange 9, #d9480f at 4.3:1, do not; the browser test
// measures them). Orange 9 is darkened to #bd4309 (5.3:1 on white). A
// subtle or light button's text is its colour's light colour whatever
// shade it names (Mantine caps it at shade 6): name no shade there.
const orange = DEFAULT_THEME.colors.orange.map((c, i) => (i === 9 ? "#bd4309" : c)) as unknown as MantineColorsTuple;
const theme = createTheme({ primaryShade: { light: 8, dark: 6 }, colors: { orange } });
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)", "--mantine-color-error": "var(--mantine-color-red-9)",
    "--mantine-color-red-light-color": "var(--mantine-color-red-9)", "--mantine-color-orange-light-color": "var(--mantine-color-orange-9)",
    // A filled orange button (a confirmation) is drawn with the filled
    // colour whatever shade it names.
    "--mantine-color-orange-filled": "var(--mantine-color-orange-9)", "--mantine-color-orange-filled-hover": "#a33a00",
  },
  dark: {},
});

auth.start();
if (auth.token() && !auth.needsReason()) firstView.start(window.location.search);
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="light">
      <App />
    </MantineProvider>
  </StrictMode>,
);
