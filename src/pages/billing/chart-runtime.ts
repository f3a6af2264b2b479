// The G2 runtime the console's charts draw with: only the parts of G2's core library that a
// stacked column chart uses (G2's documented way to bundle what a chart needs is a runtime
// extended with chosen components). @ant-design/plots builds its runtime from G2's whole standard
// library plus its plot extension (maps, graphs, sunbursts, word clouds and their d3 modules); the
// build points the plots' runtime module here instead (vite.config.ts), so every plot class of
// @ant-design/plots draws with this one. A spec naming a component missing here fails with G2's
// "Unknown Component: <name>" error: add it below.
import { GrowInX, GrowInY } from "@antv/g2/esm/animation/index";
import { Transpose } from "@antv/g2/esm/coordinate/index";
import {
  ElementHighlight,
  ElementHighlightByColor,
  ElementHighlightByX,
} from "@antv/g2/esm/interaction/index";
import { litelib } from "@antv/g2/esm/lib/lite";
import { ClassicDark } from "@antv/g2/esm/theme/index";
import { DodgeX, StackEnter, StackY } from "@antv/g2/esm/transform/index";
import { extend, Runtime } from "./g2-core";

/**
 * Column and bar charts: G2's lite library (the interval mark, scales, axes, legends, tooltips,
 * the default interactions every view gets, the classic theme, enter/exit animations) plus what
 * @ant-design/plots' column and bar plots and the console's options add: stacking and dodging,
 * horizontal bars, the dark theme, highlight on hover, and grow-in animations.
 */
const columnLibrary = {
  ...litelib(),
  "transform.stackY": StackY,
  "transform.stackEnter": StackEnter,
  "transform.dodgeX": DodgeX,
  "coordinate.transpose": Transpose,
  "theme.classicDark": ClassicDark,
  "interaction.elementHighlight": ElementHighlight,
  "interaction.elementHighlightByX": ElementHighlightByX,
  "interaction.elementHighlightByColor": ElementHighlightByColor,
  "animation.growInX": GrowInX,
  "animation.growInY": GrowInY,
};

export const Chart = extend(Runtime, columnLibrary);
