import { bytesToHex } from "@ethereumjs/util";
import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import type { DoubleSignReport } from "@strata/protocol";
import { encodeFunctionData, type Hex } from "viem";
import type { DoubleSignEvidence } from "./finality.js";

/**
 * The calldata that submits `evidence` to the Staking contract: `slashDoubleSeal(headerA, sealA,
 * headerB, sealB)` for two seals (each header as the RLP its seal signs), `slashDoubleVote(number,
 * hashA, signatureA, hashB, signatureB)` for two votes.
 */
export function evidenceCalldata(evidence: DoubleSignEvidence): Hex {
  if (evidence.kind === "seal") {
    const [a, b] = evidence.headers;
    return encodeFunctionData({
      abi: Staking.abi,
      functionName: "slashDoubleSeal",
      args: [
        bytesToHex(a.unsealedRlp),
        bytesToHex(a.signature),
        bytesToHex(b.unsealedRlp),
        bytesToHex(b.signature),
      ],
    });
  }
  const [a, b] = evidence.votes;
  return encodeFunctionData({
    abi: Staking.abi,
    functionName: "slashDoubleVote",
    args: [
      evidence.number,
      bytesToHex(a.hash),
      bytesToHex(a.signature),
      bytesToHex(b.hash),
      bytesToHex(b.signature),
    ],
  });
}

/** `evidence` in its JSON-RPC form. */
export function evidenceToJson(evidence: DoubleSignEvidence): DoubleSignReport {
  const pair = evidence.kind === "seal" ? evidence.headers : evidence.votes;
  return {
    kind: evidence.kind,
    validator: evidence.validator,
    number: `0x${evidence.number.toString(16)}`,
    hashes: [bytesToHex(pair[0].hash), bytesToHex(pair[1].hash)],
    to: STAKING_ADDRESS.toLowerCase(),
    data: evidenceCalldata(evidence),
  };
}
