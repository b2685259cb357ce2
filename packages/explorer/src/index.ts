export {
  DEFAULT_WEB_ROOT,
  defaultWsUrl,
  ExplorerNotBuiltError,
  type ExplorerServer,
  type ExplorerServerOptions,
  InvalidApiUrlError,
  parseApiUrl,
  startExplorerServer,
} from "./static-server.js";
