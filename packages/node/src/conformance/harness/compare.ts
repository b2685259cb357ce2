import { hasMethodResultSchema, validateMethodResult } from "../schema-validator.js";

/** The verdict on one response. */
export interface Verdict {
  readonly pass: boolean;
  /** Why it failed (or, for a schema-only pass without a schema to check, a note). */
  readonly detail?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Compares a response with the expected one by hive's rules: the JSON must be equal (object keys in
 * any order, arrays in order), except that when both carry an `error`, its `message` is not
 * compared. For a schema-only test the response must carry a `result` that is valid against the
 * method's result schema in the specification (when the copied specification defines one), or, when
 * the expected answer is itself an error, an error (the specification has no schema for errors).
 */
export function compareResponse(
  method: string,
  actualText: string,
  expectedText: string,
  specOnly: boolean,
): Verdict {
  let actual: Json;
  try {
    actual = JSON.parse(actualText) as Json;
  } catch {
    return { pass: false, detail: `response is not JSON: ${actualText.slice(0, 200)}` };
  }
  const expected = JSON.parse(expectedText) as Json;
  if (specOnly) {
    const wantsError = isObject(expected) && isObject(expected.error);
    if (!wantsError) return checkSchemaOnly(method, actual);
    return isObject(actual) && isObject(actual.error)
      ? { pass: true }
      : { pass: false, detail: `expected an error, got ${JSON.stringify(actual).slice(0, 300)}` };
  }
  if (isObject(actual) && isObject(expected) && isObject(actual.error) && isObject(expected.error)) {
    actual = { ...actual, error: withoutMessage(actual.error) };
    expected.error = withoutMessage(expected.error);
  }
  const difference = firstDifference(actual, expected, "");
  return difference === undefined ? { pass: true } : { pass: false, detail: difference };
}

function checkSchemaOnly(method: string, actual: Json): Verdict {
  if (!isObject(actual) || !("result" in actual)) {
    return { pass: false, detail: `expected a result, got ${JSON.stringify(actual).slice(0, 300)}` };
  }
  if (!hasMethodResultSchema(method))
    return { pass: true, detail: "no result schema in the specification copy" };
  const violations = validateMethodResult(method, actual.result);
  return violations.length === 0
    ? { pass: true }
    : { pass: false, detail: violations.slice(0, 3).join("; ") };
}

function withoutMessage(error: { [key: string]: Json }): { [key: string]: Json } {
  const { message: _message, ...rest } = error;
  return rest;
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The path and values of the first difference between two JSON values, or undefined when equal. */
function firstDifference(
  actual: Json | undefined,
  expected: Json | undefined,
  path: string,
): string | undefined {
  const here = path === "" ? "(root)" : path;
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual))
      return `${here}: have ${short(actual)}, want ${short(expected)}`;
    if (actual.length !== expected.length)
      return `${here}: have ${actual.length} entries, want ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const difference = firstDifference(actual[i], expected[i], `${path}[${i}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (isObject(expected) || isObject(actual)) {
    if (!isObject(expected) || !isObject(actual))
      return `${here}: have ${short(actual)}, want ${short(expected)}`;
    for (const key of Object.keys(expected)) {
      if (!(key in actual)) return `${path}.${key}: missing (want ${short(expected[key])})`;
      const difference = firstDifference(actual[key], expected[key], `${path}.${key}`);
      if (difference) return difference;
    }
    for (const key of Object.keys(actual)) {
      if (!(key in expected)) return `${path}.${key}: unexpected (have ${short(actual[key])})`;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${here}: have ${short(actual)}, want ${short(expected)}`;
}

function short(value: Json | undefined): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
