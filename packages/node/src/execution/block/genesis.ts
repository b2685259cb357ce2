import { type Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToHex,
  createAddressFromString,
  hexToBytes,
  setLengthLeft,
} from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";
import { SYSTEM_ADDRESS, SYSTEM_CALL_GAS_LIMIT, systemPredeploys } from "@strata/contracts";
import type { GethGenesis } from "../../config/network.js";
import { type SystemSection, systemContractsGenesis } from "../../config/network-sections.js";
import type { StateFactory } from "../state/state-factory.js";

/** Raised when a network's system contracts cannot be placed (their constructor reverts). */
export class InvalidGenesisError extends Error {}

/**
 * Builds the genesis state from the alloc and, when given, the system contracts (each placed by
 * running its creation code at its fixed address, see packages/contracts README "Genesis"), and
 * returns the genesis block (header fields as geth does).
 */
export async function buildGenesisBlock(
  genesis: GethGenesis,
  common: Common,
  states: StateFactory,
  system?: SystemSection,
): Promise<Block> {
  const state = states.empty();
  await state.checkpoint();
  for (const [rawAddress, account] of Object.entries(genesis.alloc)) {
    const address = new Address(hexToBytes(prefixed(rawAddress)));
    await state.putAccount(address, new Account(BigInt(account.nonce ?? 0), BigInt(account.balance)));
    if (account.code && account.code !== "0x")
      await state.putCode(address, hexToBytes(prefixed(account.code)));
    for (const [slot, value] of Object.entries(account.storage ?? {})) {
      await state.putStorage(
        address,
        setLengthLeft(hexToBytes(prefixed(slot)), 32),
        bigIntToBytes(BigInt(prefixed(value))),
      );
    }
  }
  if (system)
    await placeSystemContracts(state, common, system, BigInt(genesis.timestamp), BigInt(genesis.gasLimit));
  await state.commit();
  const stateRoot = await state.getStateRoot();
  return createBlock(
    {
      header: {
        number: 0n,
        stateRoot,
        gasLimit: BigInt(genesis.gasLimit),
        timestamp: BigInt(genesis.timestamp),
        extraData: hexToBytes(prefixed(genesis.extraData)),
        difficulty: BigInt(genesis.difficulty),
        nonce: setLengthLeft(hexToBytes(prefixed(genesis.nonce)), 8),
        mixHash: hexToBytes(prefixed(genesis.mixHash)),
        coinbase: hexToBytes(prefixed(genesis.coinbase)),
        ...(genesis.baseFeePerGas === undefined ? {} : { baseFeePerGas: BigInt(genesis.baseFeePerGas) }),
        ...(genesis.excessBlobGas === undefined ? {} : { excessBlobGas: BigInt(genesis.excessBlobGas) }),
        ...(genesis.blobGasUsed === undefined ? {} : { blobGasUsed: BigInt(genesis.blobGasUsed) }),
      },
    },
    { common, setHardfork: false },
  );
}

async function placeSystemContracts(
  state: MerkleStateManager,
  common: Common,
  system: SystemSection,
  timestamp: bigint,
  gasLimit: bigint,
): Promise<void> {
  const vm = await createVM({ common: common.copy(), stateManager: state });
  const caller = createAddressFromString(SYSTEM_ADDRESS);
  const block = {
    header: {
      number: 0n,
      coinbase: new Address(new Uint8Array(20)),
      timestamp,
      difficulty: 0n,
      prevRandao: new Uint8Array(32),
      gasLimit,
      baseFeePerGas: 0n,
      getBlobGasPrice: () => 1n,
    },
  };
  for (const predeploy of systemPredeploys(systemContractsGenesis(system))) {
    const address = createAddressFromString(predeploy.address);
    await state.putAccount(address, new Account(1n, predeploy.value));
    const result = await vm.evm.runCode({
      code: hexToBytes(predeploy.data),
      data: new Uint8Array(),
      to: address,
      caller,
      origin: caller,
      value: predeploy.value,
      gasLimit: SYSTEM_CALL_GAS_LIMIT,
      gasPrice: 0n,
      block,
    });
    if (result.exceptionError) {
      throw new InvalidGenesisError(
        `genesis: the ${predeploy.name} constructor reverted (${result.exceptionError.error}, ${bytesToHex(result.returnValue)}): check the network's system section`,
      );
    }
    await state.putCode(address, result.returnValue);
  }
}

function prefixed(hex: string): `0x${string}` {
  return (hex.startsWith("0x") ? hex : `0x${hex}`) as `0x${string}`;
}
