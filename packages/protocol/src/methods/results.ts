import { z } from "zod";
import { HexText } from "../objects/hex-text.js";

/** A result that is `null` (setters and controls that answer nothing). */
export const NullResult = z.null();
/** A result that is always `true`. */
export const TrueResult = z.literal(true);
/** A boolean result. */
export const BoolResult = z.boolean();
/** A hex quantity or data result. */
export const HexResult = HexText;
/** A hex result, or `null` when the thing asked for does not exist. */
export const HexOrNull = HexText.nullable();
/** A result whose shape the method's own specification defines (traces, Otterscan views, simulations). */
export const OpenResult = z.unknown();
