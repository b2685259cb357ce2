import { Capability, type TypedTransaction } from "@ethereumjs/tx";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { type Hex, toData, toQuantity } from "@strata/protocol";
import { keccak256 } from "../../../crypto/keccak.js";
import { TxPoolError } from "../../../errors/domain-errors.js";
import { defineMethods } from "../../registry.js";
import type { RpcServices } from "../../services.js";

const ZERO_ADDRESS = `0x${"00".repeat(20)}` as Hex;

function keyOf(services: RpcServices, address: string): Uint8Array {
  const key = services.devAccounts.get(address);
  if (!key) throw new TxPoolError("unknown account");
  return key;
}

/** The EIP-191 personal-message hash: keccak256("\x19Ethereum Signed Message:\n" + length + message). */
function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`);
  return keccak256(Buffer.concat([prefix, message]));
}

/**
 * A transaction in geth's own JSON encoding (`types.Transaction`): fee fields of other types are
 * present as null, the signature of an unsigned transaction is zero, and the hash covers the encoding.
 */
function transactionJson(tx: TypedTransaction): Record<string, unknown> {
  const fee = tx.supports(Capability.EIP1559FeeMarket)
    ? (tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint })
    : undefined;
  const out: Record<string, unknown> = {
    type: toQuantity(tx.type),
    ...(tx.type !== 0 ? { chainId: toQuantity(tx.common.chainId()) } : {}),
    nonce: toQuantity(tx.nonce),
    to: tx.to ? toData(tx.to.bytes) : null,
    gas: toQuantity(tx.gasLimit),
    gasPrice: fee ? null : toQuantity((tx as unknown as { gasPrice: bigint }).gasPrice),
    maxPriorityFeePerGas: fee ? toQuantity(fee.maxPriorityFeePerGas) : null,
    maxFeePerGas: fee ? toQuantity(fee.maxFeePerGas) : null,
    value: toQuantity(tx.value),
    input: toData(tx.data),
  };
  const json = tx.toJSON();
  if (tx.type !== 0) out.accessList = json.accessList ?? [];
  if (tx.type === 4) out.authorizationList = json.authorizationList ?? [];
  out.v = toQuantity(tx.v ?? 0n);
  out.r = toQuantity(tx.r ?? 0n);
  out.s = toQuantity(tx.s ?? 0n);
  if (tx.type !== 0) out.yParity = toQuantity(tx.v ?? 0n);
  if (tx.type === 0 && tx.v !== undefined && tx.v > 28n) out.chainId = toQuantity(tx.common.chainId());
  out.hash = toData(tx.isSigned() ? tx.hash() : keccak256(tx.serialize()));
  return out;
}

function signed(tx: TypedTransaction): { raw: Hex; tx: Record<string, unknown> } {
  return { raw: toData(tx.serialize()), tx: transactionJson(tx) };
}

/** Signing with the node's unlocked (development) accounts, and filling in transaction defaults. */
export const signMethods = defineMethods({
  eth_sign: ([address, message], services) => {
    const key = keyOf(services, address);
    const hash = personalMessageHash(Buffer.from(message.slice(2), "hex"));
    // noble's recovered format is recovery || r || s; Ethereum's is r || s || (27 + recovery).
    const signature = secp256k1.sign(hash, key, { prehash: false, format: "recovered" });
    return toData(Buffer.concat([signature.subarray(1), Buffer.from([27 + signature[0]!])]));
  },
  eth_signTransaction: async ([request], services) => {
    services.filler.requireSigningFields(request);
    const key = keyOf(services, request.from ?? ZERO_ADDRESS);
    return signed((await services.filler.unsigned(request)).sign(key));
  },
  eth_fillTransaction: async ([request], services) => signed(await services.filler.unsigned(request)),
});
