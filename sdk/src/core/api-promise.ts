import type { WithResponse } from "./request-options";

/**
 * The result of every SDK call: await it for the parsed data, or call `.withResponse()` to also see
 * the status, request id, attempts and whether the gateway replayed an idempotent answer. The request
 * starts when the method is called, not when the promise is awaited.
 *
 * @example
 * const key = await client.apiKeys.create({ name: "ci" });
 * const { data, response } = await client.apiKeys.create({ name: "ci" }).withResponse();
 */
export class APIPromise<T> implements PromiseLike<T> {
  readonly #result: Promise<WithResponse<T>>;

  constructor(result: Promise<WithResponse<T>>) {
    this.#result = result;
  }

  /** The parsed data together with what the SDK saw of the answer. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.#result.then((result) => result.data).then(onfulfilled, onrejected);
  }

  catch<Rejected = never>(onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null): Promise<T | Rejected> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return "APIPromise";
  }
}
