import pg from "pg";

/**
 * A PostgreSQL client that listens for its own 'error' from the moment it exists to its end, and
 * keeps the first one. Every client the store opens is one: the pool's (its `Client` option), the
 * key-change listener's, the migrations'.
 *
 * node-postgres emits 'error' on a client whose connection fails while no statement waits on it
 * (a backend terminated by an operator, a failover or a pooler; the server stopping; a reset), and
 * an 'error' nobody listens for ends the process. pg-pool listens only while a client is idle in
 * it, and `pool.query` while its statement runs; a client that `pool.connect()` hands out has no
 * listener until its caller's `await` resumes, and by then the rest of the bytes read with the
 * answer that freed it, a termination among them, were handled (test/faults/postgres-faults.test.ts,
 * "backends terminated just as they answer"). A listener of the client's own leaves no such moment.
 */
export class GuardedClient extends pg.Client {
  #failure: Error | undefined;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", (error: Error) => {
      this.#failure ??= error;
    });
  }

  /** The first error the connection met: once set, the connection is lost (a pool must discard it). */
  get failure(): Error | undefined {
    return this.#failure;
  }
}

/** The first error `client`'s connection met, when it is a {@link GuardedClient}. */
export function connectionFailure(client: pg.ClientBase): Error | undefined {
  return client instanceof GuardedClient ? client.failure : undefined;
}
