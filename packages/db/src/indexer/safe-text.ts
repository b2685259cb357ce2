/*
 * Text a contract chose (token names and symbols, revert reasons, oracle asset names, DePIN regions and
 * endpoints) goes into PostgreSQL `text` and `jsonb`, which refuse NUL and unpaired UTF-16 surrogates
 * (`unsupported Unicode escape sequence`): one such string would fail the whole block's statement,
 * every time it is retried. Invalid UTF-8 is already U+FFFD once decoded (TextDecoder); this makes
 * the rest storable and bounds the length.
 */

/** Longest token name or symbol stored, in UTF-16 code units (longer ones end with "…"). */
export const MAX_TOKEN_TEXT = 256;
/** Longest revert reason stored, in UTF-16 code units. */
export const MAX_REVERT_REASON = 1_024;
/** Longest string stored inside a JSON document from the chain (DePIN nodes, predictions). */
export const MAX_DOCUMENT_TEXT = 1_024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL refuses.
const UNSTORABLE = /[\u0000\ud800-\udfff]/;
const NUL_OR_LONE_SURROGATE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL refuses.
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `value` made storable in PostgreSQL text: NUL and unpaired surrogates become U+FFFD (as invalid
 * UTF-8 does when decoded), and text longer than `maxLength` is cut (never inside a surrogate pair)
 * and ends with "…".
 */
export function storableText(value: string, maxLength: number): string {
  let text = UNSTORABLE.test(value) ? value.replace(NUL_OR_LONE_SURROGATE, "\ufffd") : value;
  if (text.length > maxLength) {
    let end = maxLength - 1;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    text = `${text.slice(0, end)}…`;
  }
  return text;
}

/** {@link storableText} of a nullable value. */
export function storableTextOrNull(value: string | null, maxLength: number): string | null {
  return value === null ? null : storableText(value, maxLength);
}

/** `JSON.stringify` of a chain-supplied document with every string made {@link storableText}. */
export function storableJson(document: unknown): string {
  return JSON.stringify(document, (_key, value: unknown) =>
    typeof value === "string" ? storableText(value, MAX_DOCUMENT_TEXT) : value,
  );
}
