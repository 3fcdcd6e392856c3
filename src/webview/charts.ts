/** Chart.js, registered once with only what the panels use, coloured from the theme. */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Tooltip,
} from "chart.js";
import { themeColor } from "./common.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Legend,
  Tooltip,
);

export function applyTheme(): void {
  Chart.defaults.color = themeColor("--vscode-foreground", "#ccc");
  Chart.defaults.borderColor = themeColor("--vscode-panel-border", "#444");
  Chart.defaults.font.family = themeColor("--vscode-font-family", "sans-serif");
  Chart.defaults.animation = false;
}

export { Chart };
