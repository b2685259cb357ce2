import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { type DevStateEdit, decodeStateEdits, encodeStateEdits } from "./state-edits.js";

const at = (byte: number) => new Address(new Uint8Array(20).fill(byte));

describe("stored state edits", () => {
  it("decode as they were encoded, in order, every kind and the empty values", () => {
    const edits: DevStateEdit[] = [
      { kind: "balance", address: at(1), value: 10n ** 22n },
      { kind: "balance", address: at(2), value: 0n },
      { kind: "nonce", address: at(1), value: 7n },
      { kind: "code", address: at(3), code: Uint8Array.from([0x60, 0x00, 0xf3]) },
      { kind: "code", address: at(3), code: new Uint8Array() },
      { kind: "storage", address: at(4), slot: new Uint8Array(32).fill(9), value: Uint8Array.from([1, 2]) },
    ];
    const decoded = decodeStateEdits(encodeStateEdits(edits));
    expect(decoded.map((edit) => ({ ...edit, address: edit.address.toString() }))).toEqual(
      edits.map((edit) => ({ ...edit, address: edit.address.toString() })),
    );
  });

  it("refuse a tag they do not know", () => {
    const bytes = encodeStateEdits([{ kind: "nonce", address: at(1), value: 1n }]);
    // The list's first item is the tag 0x01 (nonce); 0x09 names no kind.
    const tampered = Uint8Array.from(bytes);
    tampered[tampered.indexOf(0x01)] = 0x09;
    expect(() => decodeStateEdits(tampered)).toThrow(/unknown state edit tag 9/);
  });
});
