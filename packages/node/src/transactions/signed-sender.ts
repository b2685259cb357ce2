import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  TransactionReceiptNotFoundError,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** One contract call a {@link SignedSender} signs and sends. */
export interface SignedCall {
  readonly to: Address;
  readonly data: Hex;
  readonly gas: bigint;
  readonly value?: bigint;
}

/** The tip every transaction of a {@link SignedSender} offers. */
const TIP = 1_000_000_000n;
const RECEIPT_POLL_MS = 100;

/**
 * Sends ordinary signed EIP-1559 transactions from one key to a node over JSON-RPC, in rounds:
 * consecutive nonces from the pending count, a max fee of twice the latest base fee plus the tip,
 * then a wait for every receipt. The dev price reporter and the DePIN demo send through it.
 */
export class SignedSender {
  /** The client the owner also reads the chain with. */
  readonly publicClient: PublicClient;
  private readonly wallet: WalletClient<Transport, Chain | undefined, Account>;
  /** Cuts every request of this sender, in flight or to come. */
  private readonly requests = new AbortController();

  /**
   * @param rpcUrl JSON-RPC URL of the node.
   * @param privateKey the sending account's key.
   * @param isStopped asked between sends and receipt polls: once true, the round ends early.
   */
  constructor(
    rpcUrl: string,
    privateKey: Hex,
    private readonly isStopped: () => boolean,
  ) {
    const transport = http(rpcUrl, { timeout: 30_000, fetchOptions: { signal: this.requests.signal } });
    this.publicClient = createPublicClient({ transport, pollingInterval: 100 });
    this.wallet = createWalletClient({ account: privateKeyToAccount(privateKey), transport });
  }

  /**
   * Fails every request in flight and every later one, so that an owner stopping does not wait for
   * answers (a node's first call waits for its execution workers to start).
   */
  abort(): void {
    this.requests.abort();
  }

  /** The sending account. */
  get address(): Address {
    return this.wallet.account.address;
  }

  /**
   * Sends the calls with consecutive nonces, then waits for every receipt. Resolves with the hashes
   * of the transactions that reverted (those whose receipt came before a stop).
   */
  async sendAll(calls: readonly SignedCall[]): Promise<Hex[]> {
    if (calls.length === 0) return [];
    let nonce = await this.publicClient.getTransactionCount({ address: this.address, blockTag: "pending" });
    const block = await this.publicClient.getBlock({ blockTag: "latest" });
    const fees = { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + TIP, maxPriorityFeePerGas: TIP };
    const hashes: Hex[] = [];
    for (const call of calls) {
      if (this.isStopped()) break;
      hashes.push(
        await this.wallet.sendTransaction({
          chain: null,
          to: call.to,
          data: call.data,
          gas: call.gas,
          value: call.value ?? 0n,
          nonce: nonce++,
          type: "eip1559",
          ...fees,
        }),
      );
    }
    const reverted: Hex[] = [];
    for (const hash of hashes) {
      if ((await this.receiptStatus(hash)) === "reverted") reverted.push(hash);
    }
    return reverted;
  }

  /** Waits for a transaction's receipt; gives up (undefined) once stopped. */
  private async receiptStatus(hash: Hex): Promise<"success" | "reverted" | undefined> {
    while (!this.isStopped()) {
      const receipt = await this.publicClient.getTransactionReceipt({ hash }).catch((error: unknown) => {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      });
      if (receipt) return receipt.status;
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
    return undefined;
  }
}
