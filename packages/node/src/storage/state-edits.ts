import { RLP } from "@ethereumjs/rlp";
import { Address, bigIntToUnpaddedBytes, bytesToBigInt, bytesToInt, intToBytes } from "@ethereumjs/util";

/** One change of an account made by a dev method (`anvil_setBalance`, `anvil_setCode`, ...). */
export type DevStateEdit =
  | { readonly kind: "balance"; readonly address: Address; readonly value: bigint }
  | { readonly kind: "nonce"; readonly address: Address; readonly value: bigint }
  | { readonly kind: "code"; readonly address: Address; readonly code: Uint8Array }
  | {
      readonly kind: "storage";
      readonly address: Address;
      readonly slot: Uint8Array;
      readonly value: Uint8Array;
    };

/** The kinds in the order of their stored tag. */
const KINDS = ["balance", "nonce", "code", "storage"] as const;

/** The fields of one edit after its kind and address. */
function fieldsOf(edit: DevStateEdit): Uint8Array[] {
  switch (edit.kind) {
    case "balance":
    case "nonce":
      return [bigIntToUnpaddedBytes(edit.value)];
    case "code":
      return [edit.code];
    case "storage":
      return [edit.slot, edit.value];
  }
}

/** RLP-encodes the state edits one block applied, in order. */
export function encodeStateEdits(edits: readonly DevStateEdit[]): Uint8Array {
  return RLP.encode(
    edits.map((edit) => [intToBytes(KINDS.indexOf(edit.kind)), edit.address.bytes, ...fieldsOf(edit)]),
  );
}

/** Decodes {@link encodeStateEdits}. */
export function decodeStateEdits(bytes: Uint8Array): DevStateEdit[] {
  return (RLP.decode(bytes) as Uint8Array[][]).map(([tag, addressBytes, first, second]) => {
    const kind = KINDS[bytesToInt(tag!)];
    const address = new Address(addressBytes!);
    switch (kind) {
      case "balance":
      case "nonce":
        return { kind, address, value: bytesToBigInt(first!) };
      case "code":
        return { kind, address, code: first! };
      case "storage":
        return { kind, address, slot: first!, value: second! };
      default:
        throw new Error(`unknown state edit tag ${bytesToInt(tag!)}`);
    }
  });
}
