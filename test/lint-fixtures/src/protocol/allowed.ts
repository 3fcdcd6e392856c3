// Passes: src/protocol may import itself and zod.
import { z } from "zod";
import { formatCost } from "./format.js";
export const x = [z, formatCost];
