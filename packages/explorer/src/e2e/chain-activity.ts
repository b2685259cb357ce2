import { TestToken, testTokenCreationCode } from "@strata/contracts";
import { type DevAccount, privateKeyHex } from "@strata/node";
import {
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  parseEther,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** What the chain holds after `makeActivity`: hashes and addresses the tests look for. */
export interface Activity {
  readonly sender: Hex;
  readonly recipient: Hex;
  readonly transferTx: Hex;
  readonly token: Hex;
  readonly tokenTransferTx: Hex;
  readonly revertedTx: Hex;
  /** A payment through a forwarding contract: one internal call to `recipient`. */
  readonly forwardedTx: Hex;
  /** An ERC-20 whose `name()` is {@link HOSTILE_NAME_BYTES} and whose symbol is "HST". */
  readonly hostileToken: Hex;
}

/** A token name no text column takes as it is: "Evil", NUL, 0xff (invalid UTF-8), "Coin". */
export const HOSTILE_NAME_BYTES = "0x4576696c00ff436f696e" as Hex;
/** How the explorer shows {@link HOSTILE_NAME_BYTES}: NUL and the invalid byte are U+FFFD. */
export const HOSTILE_NAME_SHOWN = "Evil\ufffd\ufffdCoin";

/**
 * Creation code of a minimal contract whose every call forwards its value to `to`
 * (runtime: CALL(gas, to, callvalue, 0, 0, 0, 0); POP; STOP).
 */
export function forwarderCreationCode(to: Hex): Hex {
  const runtime = `60006000600060003473${to.slice(2).toLowerCase()}5af15000`;
  const size = (runtime.length / 2).toString(16).padStart(2, "0");
  // PUSH1 size, DUP1, PUSH1 0x0b (init length), PUSH1 0, CODECOPY, PUSH1 0, RETURN
  return `0x60${size}80600b6000396000f3${runtime}`;
}

/** Wallet helpers for a dev node at `rpcUrl`, signing with dev account `account`. */
export function devWallet(rpcUrl: string, account: DevAccount) {
  const chain = defineChain({
    id: 1337,
    name: "Strata dev",
    nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const signer = privateKeyToAccount(privateKeyHex(account) as Hex);
  const wallet = createWalletClient({ account: signer, chain, transport: http(rpcUrl) });
  const client = createPublicClient({ chain, transport: http(rpcUrl) });
  const mined = async (hash: Hex) => {
    await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return hash;
  };
  return {
    address: signer.address,
    /** Sends `value` wei-worth STRA to `to` and waits for it to be mined. */
    pay: async (to: Hex, value: bigint) => mined(await wallet.sendTransaction({ to, value })),
    client,
    wallet,
    mined,
  };
}

/**
 * Puts real traffic on a fresh dev chain: a payment, an ERC-20 deployment and transfer, and a transaction
 * that is mined but reverts with a reason.
 */
export async function makeActivity(rpcUrl: string, accounts: readonly DevAccount[]): Promise<Activity> {
  const alice = devWallet(rpcUrl, accounts[0]!);
  const bob = accounts[1]!.address as Hex;
  const transferTx = await alice.pay(bob, parseEther("1.5"));
  const { data } = testTokenCreationCode({
    name: "Explorer Test Token",
    symbol: "XTT",
    initialSupply: parseEther("1000"),
  });
  const deployTx = await alice.mined(await alice.wallet.sendTransaction({ data }));
  const receipt = await alice.client.getTransactionReceipt({ hash: deployTx });
  const token = receipt.contractAddress!;
  const tokenTransferTx = await alice.mined(
    await alice.wallet.sendTransaction({
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [bob, parseEther("25")] }),
    }),
  );
  // A fixed gas limit skips estimation, so the failing transfer is mined and reverts on chain.
  const revertedTx = await alice.mined(
    await alice.wallet.sendTransaction({
      to: token,
      gas: 100_000n,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: "transfer",
        args: [bob, parseEther("1000000")],
      }),
    }),
  );
  const forwarderDeploy = await alice.mined(
    await alice.wallet.sendTransaction({ data: forwarderCreationCode(bob) }),
  );
  const forwarder = (await alice.client.getTransactionReceipt({ hash: forwarderDeploy })).contractAddress!;
  const forwardedTx = await alice.pay(forwarder, parseEther("0.125"));
  // ABI `string` and `bytes` encode alike: the constructor takes the raw name bytes.
  const hostileArgs = encodeAbiParameters(
    [{ type: "bytes" }, { type: "string" }, { type: "uint256" }],
    [HOSTILE_NAME_BYTES, "HST", parseEther("1")],
  );
  const hostileDeploy = await alice.mined(
    await alice.wallet.sendTransaction({ data: concat([TestToken.bytecode, hostileArgs]) }),
  );
  const hostileToken = (await alice.client.getTransactionReceipt({ hash: hostileDeploy })).contractAddress!;
  return {
    sender: alice.address,
    recipient: bob,
    transferTx,
    token,
    tokenTransferTx,
    revertedTx,
    forwardedTx,
    hostileToken: hostileToken.toLowerCase() as Hex,
  };
}
