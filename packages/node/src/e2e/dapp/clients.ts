import {
  Contract,
  ContractFactory,
  HDNodeWallet,
  type InterfaceAbi,
  JsonRpcProvider,
  Mnemonic,
  Wallet,
} from "ethers";
import { type Abi, type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { DEV_MNEMONIC, devAccount, devChain } from "../clients.js";
import type { Artifact } from "./compile.js";

/** What a sent transaction came to. */
export interface Sent {
  readonly hash: Hex;
  readonly status: "success" | "reverted";
  readonly blockNumber: bigint;
  /** The gas limit the transaction was sent with. */
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
}

/**
 * One dApp library's way of driving contracts from a dev account: deploying, estimating and sending
 * with the library's own defaults (the gas limit is the bare estimate, as both viem and ethers v6 set
 * it), reading views.
 */
export interface DappClient {
  readonly name: string;
  readonly address: Address;
  deploy(artifact: Artifact, args?: readonly unknown[]): Promise<Address>;
  /** The library's estimate of a call (eth_estimateGas without a block tag). */
  estimate(to: Address, abi: Abi, fn: string, args?: readonly unknown[]): Promise<bigint>;
  /** Sends a call with the library's defaults (gas limit: its estimate) and waits for the receipt. */
  send(to: Address, abi: Abi, fn: string, args?: readonly unknown[]): Promise<Sent>;
  read(to: Address, abi: Abi, fn: string, args?: readonly unknown[]): Promise<unknown>;
  close(): void;
}

/** A {@link DappClient} over viem, as dev account `index`. */
export function viemDappClient(url: string, index: number): DappClient {
  const chain = devChain(url);
  const transport = http(url);
  const account = devAccount(index);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  const wallet = createWalletClient({ chain, transport, account });
  const settle = async (hash: Hex): Promise<Sent> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const tx = await publicClient.getTransaction({ hash });
    return {
      hash,
      status: receipt.status,
      blockNumber: receipt.blockNumber,
      gasLimit: tx.gas,
      gasUsed: receipt.gasUsed,
    };
  };
  return {
    name: "viem",
    address: account.address,
    async deploy(artifact, args = []) {
      const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      if (!receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
      return receipt.contractAddress;
    },
    estimate: (to, abi, fn, args = []) =>
      publicClient.estimateContractGas({ address: to, abi, functionName: fn, args, account }),
    async send(to, abi, fn, args = []) {
      return settle(await wallet.writeContract({ address: to, abi, functionName: fn, args }));
    },
    read: (to, abi, fn, args = []) => publicClient.readContract({ address: to, abi, functionName: fn, args }),
    close: () => {},
  };
}

/** A {@link DappClient} over ethers v6, as dev account `index`. */
export function ethersDappClient(url: string, index: number): DappClient {
  // cacheTimeout -1: ethers otherwise reuses identical answers (nonces, blocks) for 250 ms.
  const provider = new JsonRpcProvider(url, 1337, {
    staticNetwork: true,
    polling: true,
    pollingInterval: 20,
    cacheTimeout: -1,
  });
  const key = HDNodeWallet.fromMnemonic(
    Mnemonic.fromPhrase(DEV_MNEMONIC),
    `m/44'/60'/0'/0/${index}`,
  ).privateKey;
  const signer = new Wallet(key, provider);
  const contract = (to: Address, abi: Abi) => new Contract(to, abi as InterfaceAbi, signer);
  return {
    name: "ethers",
    address: signer.address as Address,
    async deploy(artifact, args = []) {
      const factory = new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, signer);
      const deployed = await factory.deploy(...args);
      await deployed.waitForDeployment();
      return (await deployed.getAddress()) as Address;
    },
    estimate: (to, abi, fn, args = []) =>
      contract(to, abi)
        .getFunction(fn)
        .estimateGas(...args),
    async send(to, abi, fn, args = []) {
      const response = await contract(to, abi)
        .getFunction(fn)
        .send(...args);
      // wait() throws on a failed transaction: the receipt is read instead.
      const receipt = await provider.waitForTransaction(response.hash);
      if (!receipt) throw new Error(`no receipt for ${response.hash}`);
      return {
        hash: response.hash as Hex,
        status: receipt.status === 1 ? "success" : "reverted",
        blockNumber: BigInt(receipt.blockNumber),
        gasLimit: response.gasLimit,
        gasUsed: receipt.gasUsed,
      };
    },
    read: (to, abi, fn, args = []) =>
      contract(to, abi)
        .getFunction(fn)
        .staticCall(...args),
    close: () => provider.destroy(),
  };
}
