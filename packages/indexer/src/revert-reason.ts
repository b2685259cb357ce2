import type { RpcTransaction } from "@strata/protocol";
import { RpcError } from "@strata/protocol";
import type { RpcClient } from "./rpc-client.js";

const PREFIX = "execution reverted";

/**
 * The revert reason of a reverted transaction, found by replaying it with `eth_call` on the state
 * before its block (as geth-based explorers do): `"execution reverted: <reason>"` becomes `<reason>`;
 * `null` when the replay does not revert or gives no reason. `tx` is a mined transaction (it has a block).
 */
export async function revertReason(rpc: RpcClient, tx: RpcTransaction): Promise<string | null> {
  const parent = BigInt(tx.blockNumber!) - 1n;
  const call = {
    from: tx.from,
    ...(tx.to === null ? {} : { to: tx.to }),
    data: tx.input,
    value: tx.value,
    gas: tx.gas,
  };
  try {
    await rpc.call("eth_call", [call, `0x${(parent < 0n ? 0n : parent).toString(16)}`]);
    return null;
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (!error.message.startsWith(PREFIX)) return null;
    const reason = error.message.slice(PREFIX.length).replace(/^:\s*/, "");
    return reason === "" ? null : reason;
  }
}
