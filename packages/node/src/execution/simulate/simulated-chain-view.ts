import type { EVMMockBlockchainInterface } from "@ethereumjs/evm";
import type { ChainView } from "../evm/chain-view.js";

/** The BLOCKHASH view of a simulation: simulated blocks by number, canonical blocks below them. */
export class SimulatedChainView implements EVMMockBlockchainInterface {
  private readonly simulated = new Map<number, Uint8Array>();

  constructor(private readonly canonical: ChainView) {}

  /** Records the hash of a simulated block. */
  add(number: bigint, hash: Uint8Array): void {
    this.simulated.set(Number(number), hash);
  }

  async getBlock(blockId: number): Promise<{ hash(): Uint8Array }> {
    const hash = this.simulated.get(blockId);
    return hash ? { hash: () => hash } : this.canonical.getBlock(blockId);
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this;
  }
}
