import { type Block, createBlock } from "@ethereumjs/block";
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { concatBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import {
  type Attestation,
  attestationOf,
  checkHeaderAttestation,
  decodeVote,
  encodeAttestation,
  encodeVote,
  recoverVoter,
  signVote,
  VOTE_LENGTH,
  verifyAttestation,
} from "./attestation.js";
import type { ActiveValidator } from "./schedule.js";
import { addressOfPrivateKey, DEFAULT_VANITY, recoverSealer, sealBlock } from "./seal.js";

const network = loadNetwork("dev");
const common = createCommonFromGethGenesis(network.genesis as never, { chain: "dev" });
common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
const chainId = BigInt(network.chainId);
const keys = [1, 2, 3, 4].map((b) => new Uint8Array(32).fill(b));
const STAKE = 1000n;
const voters: ActiveValidator[] = keys.map((k) => ({ address: addressOfPrivateKey(k), stake: STAKE }));
const stranger = new Uint8Array(32).fill(9);

function block(number: bigint, extraData: Uint8Array, parentHash: Uint8Array = new Uint8Array(32)): Block {
  return createBlock(
    {
      header: {
        number,
        parentHash,
        timestamp: 10n + number,
        gasLimit: 30_000_000n,
        baseFeePerGas: 1n,
        extraData,
      },
    },
    { common, setHardfork: false, skipConsensusFormatValidation: true },
  );
}

const parent = sealBlock(block(5n, DEFAULT_VANITY), keys[0]!);

function attestation(signers: readonly number[], sign = (i: number) => keys[i]!): Attestation {
  let bitmap = 0n;
  const signatures: Uint8Array[] = [];
  for (const i of [...signers].sort()) {
    bitmap |= 1n << BigInt(i);
    signatures.push(signVote(chainId, 5n, parent.hash(), sign(i)).signature);
  }
  return { number: 5n, hash: parent.hash(), bitmap, signatures };
}

describe("finality attestation", () => {
  it("a vote is 105 bytes on the wire and recovers to its signer", () => {
    const vote = signVote(chainId, 5n, parent.hash(), keys[2]!);
    const bytes = encodeVote(vote);
    expect(bytes).toHaveLength(VOTE_LENGTH);
    expect(recoverVoter(chainId, decodeVote(bytes)!)).toBe(voters[2]!.address);
    // Another chain id signs another digest.
    expect(recoverVoter(chainId + 1n, vote)).not.toBe(voters[2]!.address);
    expect(decodeVote(bytes.subarray(1))).toBeUndefined();
  });

  it("accepts three of four equal stakes and sits between vanity and seal, under the seal", () => {
    const att = attestation([0, 1, 3]);
    expect(verifyAttestation(att, parent.header, voters, chainId)).toBeUndefined();
    const child = sealBlock(
      block(6n, concatBytes(DEFAULT_VANITY, encodeAttestation(att)), parent.hash()),
      keys[1]!,
    );
    expect(child.header.extraData).toHaveLength(32 + 49 + 3 * 65 + 65);
    expect(recoverSealer(child.header)).toBe(voters[1]!.address);
    expect(attestationOf(child.header)).toEqual(att);
    expect(checkHeaderAttestation(child.header, parent.header, voters, chainId)).toBeUndefined();
  });

  it("rejects insufficient stake: two of four", () => {
    expect(verifyAttestation(attestation([0, 2]), parent.header, voters, chainId)).toMatch(
      /less than two thirds/,
    );
    // Two of three is enough when the third's stake is smaller.
    const weighted = voters.slice(0, 3).map((v, i) => ({ ...v, stake: i === 2 ? 1n : STAKE }));
    expect(verifyAttestation(attestation([0, 1]), parent.header, weighted, chainId)).toBeUndefined();
  });

  it("rejects a bad signature and a signer that is not the validator of its bit", () => {
    const att = attestation([0, 1, 2]);
    const broken = att.signatures.map((s, i) =>
      i === 1 ? Uint8Array.from(s, (b, j) => (j === 10 ? b ^ 1 : b)) : s,
    );
    expect(verifyAttestation({ ...att, signatures: broken }, parent.header, voters, chainId)).toMatch(
      /signature 1 is not/,
    );
    const impostor = attestation([0, 1, 2], (i) => (i === 2 ? stranger : keys[i]!));
    expect(verifyAttestation(impostor, parent.header, voters, chainId)).toMatch(/signature 2 is not/);
  });

  it("rejects voters that are not in the active set and attestations of another block", () => {
    const att = attestation([0, 1, 2]);
    expect(
      verifyAttestation({ ...att, bitmap: att.bitmap | (1n << 4n) }, parent.header, voters, chainId),
    ).toMatch(/beyond the 4 active validators/);
    // The same signatures checked against a set where the signers are not active.
    const others: ActiveValidator[] = [stranger, ...keys.slice(1)].map((k) => ({
      address: addressOfPrivateKey(k),
      stake: STAKE,
    }));
    expect(verifyAttestation(att, parent.header, others, chainId)).toMatch(/signature 0 is not/);
    const elsewhere = block(5n, concatBytes(DEFAULT_VANITY, new Uint8Array(1)));
    expect(verifyAttestation(att, elsewhere.header, voters, chainId)).toMatch(/not the parent/);
  });

  it("rejects a bitmap that does not match the signatures and malformed bytes", () => {
    const att = attestation([0, 1, 2]);
    const child = (bytes: Uint8Array) =>
      sealBlock(block(6n, concatBytes(DEFAULT_VANITY, bytes), parent.hash()), keys[1]!).header;
    // The bitmap fixes where the seal starts: one bit too many, or bytes missing, leave no seal.
    const extraBit = encodeAttestation({ ...att, bitmap: att.bitmap | 8n });
    expect(recoverSealer(child(extraBit))).toBeUndefined();
    expect(checkHeaderAttestation(child(extraBit), parent.header, voters, chainId)).toMatch(
      /not vanity, attestation and seal/,
    );
    const truncated = encodeAttestation(att).subarray(0, 100);
    expect(checkHeaderAttestation(child(truncated), parent.header, voters, chainId)).toMatch(/not vanity/);
    expect(checkHeaderAttestation(child(Uint8Array.of(7)), parent.header, voters, chainId)).toMatch(
      /not vanity/,
    );
  });
});
