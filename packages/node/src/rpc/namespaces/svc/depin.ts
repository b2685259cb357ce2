import { DePINFilter } from "@strata/protocol";
import { defineMethods } from "../../registry.js";

/** `svc_getDePINNodes([filter?])`: the DePIN registry's nodes at the head, filtered and paged. */
export const depinMethods = defineMethods({
  svc_getDePINNodes: ([filter], services) =>
    services.depin.list(services.chain.head, filter ?? DePINFilter.parse({})),
});
