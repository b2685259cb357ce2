import { z } from "zod";

/**
 * `0x`-prefixed hex text as a node sends it (quantities, data, hashes, addresses). Result schemas
 * describe what goes out; they do not re-check what the node already formatted.
 */
export const HexText = z.templateLiteral(["0x", z.string()]);

/** A decimal integer or fraction as text (`"1000000000000000000"`, `"0.05"`, `"99.90"`). */
export const DecimalText = z.string();

/** An ISO 8601 UTC time (`"2026-01-01T00:00:00.000Z"`). */
export const IsoTime = z.string();
