import type { EVMMockBlockchainInterface } from "@ethereumjs/evm";
import type { ChainStore } from "../../storage/chain-store.js";

/** The view of past canonical blocks that the EVM needs for the BLOCKHASH opcode. */
export class ChainView implements EVMMockBlockchainInterface {
  constructor(private readonly store: ChainStore) {}

  async getBlock(blockId: number): Promise<{ hash(): Uint8Array }> {
    const hash = this.store.canonicalHash(BigInt(blockId));
    if (!hash) throw new Error(`no canonical block ${blockId}`);
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this;
  }
}
