import { InvalidParamsError } from "../errors.js";
import { describeIssue } from "../schemas.js";
import type { MethodSpec } from "./define.js";

/**
 * Decodes positional `params` with a method's schemas: at most as many as it takes, the required
 * ones present, each valid. Throws -32602 naming the argument (geth's wording); an absent or null
 * optional argument decodes to `undefined`.
 */
export function decodeParams(
  spec: Pick<MethodSpec, "params" | "required">,
  params: readonly unknown[],
): unknown[] {
  const { params: schemas, required } = spec;
  if (params.length > schemas.length) {
    throw new InvalidParamsError(`too many arguments, want at most ${schemas.length}`);
  }
  const args: unknown[] = [];
  for (let i = 0; i < schemas.length; i++) {
    const value = params[i];
    if (value === undefined || value === null) {
      if (i < required) throw new InvalidParamsError(`missing value for required argument ${i}`);
      args.push(undefined);
      continue;
    }
    const parsed = schemas[i]!.safeParse(value);
    if (!parsed.success)
      throw new InvalidParamsError(`invalid argument ${i}: ${describeIssue(parsed.error)}`);
    args.push(parsed.data);
  }
  return args;
}
