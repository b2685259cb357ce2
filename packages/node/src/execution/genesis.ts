import { type Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { Account, Address, bigIntToBytes, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import type { GethGenesis } from "../config/network.js";
import type { StateFactory } from "./state-factory.js";

/** Builds the genesis state from the alloc and returns the genesis block (header fields as geth does). */
export async function buildGenesisBlock(
  genesis: GethGenesis,
  common: Common,
  states: StateFactory,
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

function prefixed(hex: string): `0x${string}` {
  return (hex.startsWith("0x") ? hex : `0x${hex}`) as `0x${string}`;
}
