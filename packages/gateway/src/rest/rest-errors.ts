/** A REST request the API refuses: answered as `{error: {code, message}}` with `status`. */
export class RestError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
  }
}

/** 400: a malformed path parameter or query argument; the message names it. */
export class BadRequestError extends RestError {
  constructor(message: string) {
    super(400, "bad_request", message);
  }
}

/** 404: no such resource. */
export class NotFoundError extends RestError {
  constructor(message: string) {
    super(404, "not_found", message);
  }
}

/** 503: what the route needs (the index, or the node) is not available. */
export class UnavailableError extends RestError {
  constructor(message: string) {
    super(503, "unavailable", message);
  }
}
