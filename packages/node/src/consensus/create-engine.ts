import { devPrivateKey } from "../config/dev-keys.js";
import type { NodeConfig } from "../config/node-config.js";
import type { DevAccount } from "../dev-accounts.js";
import { PosEngine } from "./engine.js";
import { addressOfPrivateKey } from "./seal.js";

/** Raised for a bad `--offline-validators` entry or validator key. */
export class ValidatorSettingsError extends Error {}

/**
 * The proof-of-stake engine of a node, or undefined on a network without a consensus section (plain
 * blocks, coinbase zero). A node given a validator key seals only with it, waiting out its turn in
 * wall-clock time whenever it mines on an interval; otherwise a dev network seals with the
 * genesis validators' keys derived from its mnemonic plus the dev accounts' keys (so a validator
 * registered from a dev account proposes too), and fallbacks seal at once.
 */
export function createPosEngine(
  config: NodeConfig,
  devAccounts: readonly DevAccount[],
): PosEngine | undefined {
  const { network } = config;
  if (!network.consensus || !network.system) return undefined;
  const key = config.validator?.key;
  const signers = new Map<string, Uint8Array>();
  if (config.follow !== undefined) {
    // A follower verifies the blocks of its source and seals none.
  } else if (key) {
    signers.set(addressOfPrivateKey(key), key);
  } else {
    for (const privateKey of devValidatorKeys(network))
      signers.set(addressOfPrivateKey(privateKey), privateKey);
    for (const account of devAccounts) signers.set(account.address, account.privateKey);
  }
  const genesisValidators = network.system.staking.validators.map((v) => v.address.toLowerCase());
  const offline = (config.validator?.offline ?? []).map((entry) =>
    resolveValidator(entry, genesisValidators),
  );
  // A node with one key is a validator among others, whatever mining mode it starts in.
  return new PosEngine(network, { signers, offline, waitForTimeouts: key !== undefined });
}

/**
 * The private keys of a dev network's genesis validators (`consensus.devValidatorKeys`, HD indices of
 * its mnemonic), in genesis order; empty on a network without them.
 */
export function devValidatorKeys(network: NodeConfig["network"]): Uint8Array[] {
  const mnemonic = network.devAccounts?.mnemonic;
  if (!mnemonic) return [];
  return (network.consensus?.devValidatorKeys ?? []).map((addressIndex) =>
    devPrivateKey(mnemonic, addressIndex),
  );
}

function resolveValidator(entry: string, genesisValidators: readonly string[]): string {
  if (/^\d+$/.test(entry)) {
    const address = genesisValidators[Number(entry)];
    if (!address) {
      throw new ValidatorSettingsError(
        `offline validator ${entry}: the network has ${genesisValidators.length} genesis validators (indices 0..${genesisValidators.length - 1})`,
      );
    }
    return address;
  }
  if (/^0x[0-9a-fA-F]{40}$/.test(entry)) return entry.toLowerCase();
  throw new ValidatorSettingsError(
    `offline validator "${entry}": expected an index or a 0x-prefixed address`,
  );
}
