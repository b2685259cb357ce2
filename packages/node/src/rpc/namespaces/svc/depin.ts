import { DEPIN_NODE_TYPES } from "@strata/contracts";
import { Address } from "@strata/protocol";
import { z } from "zod";
import { defineMethod } from "../../registry.js";

/** Default and largest page of `svc_getDePINNodes`. */
export const DEPIN_PAGE = { default: 100, max: 1000 } as const;

/** The optional filter of `svc_getDePINNodes`; unknown keys are refused. */
const DePINFilter = z.strictObject({
  type: z.enum(DEPIN_NODE_TYPES).optional(),
  region: z.string().max(64).optional(),
  owner: Address.optional(),
  status: z.enum(["active", "inactive", "all"]).default("active"),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(DEPIN_PAGE.max).default(DEPIN_PAGE.default),
});

/** `svc_getDePINNodes([filter?])`: the DePIN registry's nodes at the head, filtered and paged. */
export const depinMethods = {
  svc_getDePINNodes: defineMethod({
    params: [DePINFilter],
    required: 0,
    summary:
      "Returns the DePIN registry's nodes at the head, filtered by type, region, owner and status, and paged.",
    handler: ([filter], services) =>
      services.depin.list(services.chain.head, filter ?? DePINFilter.parse({})),
  }),
};
