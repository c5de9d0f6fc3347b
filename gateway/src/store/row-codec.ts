/**
 * A table's columns and their encoding, declared once (store/tables.ts) for both stores: each
 * store derives its statements' column lists and parameters, and reads rows back, from the same
 * declaration. Adding a column is a migration per database (gateway/migrations) and one line there.
 *
 * Both databases hold the same values (migrations/postgres says so): times are milliseconds since
 * the epoch and credits integer micro-units (INTEGER / BIGINT), booleans 0/1, JSON as text, hashes
 * as bytes. Drivers hand integers back as numbers or bigints (SQLite statements that read credits
 * use setReadBigInts(true); pg reads BIGINT as bigint), so every kind reads either.
 */

/** A value a statement binds, as both drivers take it. */
export type SqlValue = string | number | bigint | Uint8Array | null;

/** How one field is held in one column. */
export interface ColumnKind<Value> {
  write(value: Value): SqlValue;
  read(stored: unknown): Value;
}

type Int = bigint | number;

const nullable = <Value>(kind: ColumnKind<Value>): ColumnKind<Value | null> => ({
  // An optional field left out is stored as null, as one set to null.
  write: (value) => (value === null || value === undefined ? null : kind.write(value)),
  read: (stored) => (stored === null || stored === undefined ? null : kind.read(stored)),
});

const text: ColumnKind<string> = { write: (value) => value, read: (stored) => stored as string };
const int: ColumnKind<number> = { write: (value) => value, read: (stored) => Number(stored as Int) };
const credits: ColumnKind<bigint> = { write: (value) => value, read: (stored) => BigInt(stored as Int) };
const bytes: ColumnKind<Buffer> = { write: (value) => value, read: (stored) => Buffer.from(stored as Uint8Array) };

/** The kinds of column the tables use. */
export const column = {
  text,
  int,
  /** Micro-units of credit: bigints, exact past 2^53. */
  credits,
  bytes,
  /** A boolean as 0 or 1. */
  flag: { write: (value: boolean) => (value ? 1 : 0), read: (stored: unknown) => Number(stored as Int) === 1 } satisfies ColumnKind<boolean>,
  /** A string that holds one of `Value`'s names (the CHECK constraints and the contract keep them so). */
  literal: <Value extends string>(): ColumnKind<Value> => text as ColumnKind<Value>,
  /** Any JSON value, as text. */
  json: <Value>(): ColumnKind<Value> => ({ write: (value) => JSON.stringify(value), read: (stored) => JSON.parse(stored as string) as Value }),
  nullable,
  /** Any other encoding, written out by hand. */
  custom: <Value>(kind: ColumnKind<Value>): ColumnKind<Value> => kind,
};

/** Dotted paths to an entity's fields, one level of nesting deep (`loggingPolicy.storeRequest`). */
export type FieldPath<Entity> = {
  [K in keyof Entity & string]: NonNullable<Entity[K]> extends Buffer | readonly unknown[] | bigint
    ? K
    : NonNullable<Entity[K]> extends object
      ? K | `${K}.${keyof NonNullable<Entity[K]> & string}`
      : K;
}[keyof Entity & string];

/** When a column is written: every write, only on insert, or never (the database makes it). */
export type Written = "always" | "insert" | "never";

/** One column of a table: the field it holds, its kind, and when it is written. */
export interface ColumnSpec<Entity> {
  field: FieldPath<Entity>;
  kind: ColumnKind<any>;
  written: Written;
}

/** A column holding `field`, written on every insert and update. */
export const holds = <Entity>(field: FieldPath<Entity>, kind: ColumnKind<any>, written: Written = "always"): ColumnSpec<Entity> => ({
  field,
  kind,
  written,
});

interface CompiledColumn {
  name: string;
  kind: ColumnKind<unknown>;
  written: Written;
  get: (entity: object) => unknown;
  path: readonly string[];
}

/**
 * One table's columns, and what both stores derive from them. `Entity` is a row as read; `Inserted`
 * and `Updated` what an insert and an update are given (without what the database makes).
 */
export class TableCodec<Entity extends object, Inserted extends object = Entity, Updated extends object = Inserted> {
  readonly #columns: readonly CompiledColumn[];
  readonly #inserted: readonly CompiledColumn[];
  readonly #updated: readonly CompiledColumn[];

  /**
   * @param table the table's name
   * @param columns by column name, in the order statements list them
   */
  constructor(
    readonly table: string,
    columns: Record<string, ColumnSpec<Entity>>,
  ) {
    this.#columns = Object.entries(columns).map(([name, spec]) => {
      const path = spec.field.split(".");
      const [first, second] = path as [string, string | undefined];
      const get =
        second === undefined
          ? (entity: object) => (entity as Record<string, unknown>)[first]
          : (entity: object) => ((entity as Record<string, Record<string, unknown>>)[first] ?? {})[second];
      return { name, kind: spec.kind as ColumnKind<unknown>, written: spec.written, get, path };
    });
    this.#inserted = this.#columns.filter((entry) => entry.written !== "never");
    this.#updated = this.#columns.filter((entry) => entry.written === "always");
  }

  /** Every column, in order: what a read selects. */
  get columns(): string[] {
    return this.#columns.map((entry) => entry.name);
  }

  /** The columns an insert writes, in the order of {@link insertValues}. */
  get insertColumns(): string[] {
    return this.#inserted.map((entry) => entry.name);
  }

  /** The columns an update writes, in the order of {@link updateValues}. */
  get updateColumns(): string[] {
    return this.#updated.map((entry) => entry.name);
  }

  /** An insert's parameters, in the order of {@link insertColumns}. */
  insertValues(entity: Inserted): SqlValue[] {
    return this.#inserted.map((entry) => entry.kind.write(entry.get(entity)));
  }

  /** An update's parameters, in the order of {@link updateColumns}. */
  updateValues(entity: Updated): SqlValue[] {
    return this.#updated.map((entry) => entry.kind.write(entry.get(entity)));
  }

  /**
   * An insert's values as one JSON object by column name, for a PostgreSQL function that takes
   * rows as JSON (`json_populate_recordset(NULL::table, …)` reads each into the table's types):
   * credits travel as decimal strings, bytes as bytea's hex text.
   */
  insertJson(entity: Inserted): Record<string, string | number | null> {
    const row: Record<string, string | number | null> = {};
    for (const entry of this.#inserted) {
      const value = entry.kind.write(entry.get(entity));
      row[entry.name] =
        typeof value === "bigint" ? value.toString() : value instanceof Uint8Array ? `\\x${Buffer.from(value).toString("hex")}` : value;
    }
    return row;
  }

  /** The entity a row holds (a row of {@link columns}; other columns it has are left alone). */
  fromRow(row: Record<string, unknown>): Entity {
    const entity: Record<string, unknown> = {};
    for (const entry of this.#columns) {
      const value = entry.kind.read(row[entry.name]);
      const [first, second] = entry.path as [string, string | undefined];
      if (second === undefined) entity[first] = value;
      else ((entity[first] ??= {}) as Record<string, unknown>)[second] = value;
    }
    return entity as Entity;
  }

  /** The select list of {@link columns}, each prefixed with `alias.` when given, with `replaced` columns read from expressions instead. */
  selectList(alias?: string, replaced: Record<string, string> = {}): string {
    return this.#columns
      .map((entry) => (entry.name in replaced ? `${replaced[entry.name]} AS ${entry.name}` : alias ? `${alias}.${entry.name}` : entry.name))
      .join(", ");
  }
}
