import { Block, createBlockHeaderFromBytesArray } from "@ethereumjs/block";
import { mnemonicToAccount } from "viem/accounts";
import { sealBlock, vanityOf, withExtraData } from "../consensus/seal.js";

const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** The private key of a dev genesis validator (HD indices 100..103 of the dev mnemonic), by lowercase address. */
export function devValidatorKey(address: string): Uint8Array {
  for (let i = 100; i < 104; i++) {
    const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i });
    if (account.address.toLowerCase() === address.toLowerCase()) return account.getHdKey().privateKey!;
  }
  throw new Error(`no dev validator key for ${address}`);
}

/**
 * `block` with header field `index` (geth's header field order) replaced by `value`, sealed again
 * with `key` (by default its own proposer's), so the seal verifies and only the changed field is wrong.
 */
export function withResealedField(block: Block, index: number, value: Uint8Array, key?: Uint8Array): Block {
  const fields = withExtraData(block.header, vanityOf(block.header)).raw();
  fields[index] = value;
  const header = createBlockHeaderFromBytesArray(fields, {
    common: block.common,
    setHardfork: false,
    skipConsensusFormatValidation: true,
  });
  const unsealed = new Block(header, block.transactions, [], block.withdrawals, { common: block.common });
  return sealBlock(unsealed, key ?? devValidatorKey(block.header.coinbase.toString()));
}
