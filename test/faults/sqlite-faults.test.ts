/**
 * SQLite faults under load, at the real boundary: a gateway process (`gateway serve --db`) whose
 * database lives on a small tmpfs the test fills up, and whose file another connection locks past
 * the busy timeout. Each time: the process stays alive, writes are answered 503
 * `database_unavailable` with `Retry-After` (reads go on), nothing acknowledged is lost, nothing
 * is made twice, the charges are the answers given, the gateway serves again once space returns or
 * the lock goes, and the file passes SQLite's integrity check. A database on a read-only volume is
 * refused at start with a message that says so.
 *
 * Mounting a tmpfs needs root (CI runs as root); elsewhere these tests are skipped, saying why.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { describeWith } from "../support/needs";
import { expectNothingLost, expectServing, sleep, underLoad, withMeteredKey, type FaultCluster, type FaultRow } from "./checks";
import { UNTHROTTLED } from "./load";

const describeAsRoot = describeWith("root");

/** The gateway's `--database-timeout` (SQLite's busy timeout): short, as each wait stalls the process. */
const BUSY_TIMEOUT_MS = 1000;
/** Longest answer allowed: a write waits out the busy timeout, perhaps behind one other that does. */
const ANSWER_BOUND_MS = 2 * BUSY_TIMEOUT_MS + 2500;

describeAsRoot("SQLite faults under load", () => {
  let mountPoint: string;
  let gateway: GatewayProcess | undefined;
  const table: FaultRow[] = [];

  beforeEach(() => {
    mountPoint = mkdtempSync(join(tmpdir(), "gateway-sqlite-faults-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256m", "tmpfs", mountPoint]);
  });

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
    execFileSync("umount", ["-l", mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  afterAll(() => {
    if (table.length > 0) console.log(`database fault table:\n${table.map((row) => JSON.stringify(row)).join("\n")}`);
  });

  async function startOn(dbPath: string): Promise<FaultCluster> {
    gateway = await startGatewayProcess({
      dbPath,
      bootstrap: { ownerId: "faults-owner" },
      args: ["--database-timeout", String(BUSY_TIMEOUT_MS), "--log-level", "warn", ...UNTHROTTLED],
      env: { GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    });
    return withMeteredKey([gateway]);
  }

  /** Writes zeros into `path` until the file system is full; returns the bytes written. */
  function fillUp(path: string): number {
    const fd = openSync(path, "w");
    const chunk = Buffer.alloc(64 * 1024);
    let written = 0;
    try {
      for (;;) written += writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
    } finally {
      closeSync(fd);
    }
    return written;
  }

  function integrityOf(dbPath: string): string {
    const db = new DatabaseSync(dbPath, { readOnly: true });
    try {
      return String((db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check);
    } finally {
      db.close();
    }
  }

  test("a full disk under load: writes answered 503 with Retry-After, the process alive, served again once space returns, the file intact", async () => {
    const dbPath = join(mountPoint, "gateway.db");
    const cluster = await startOn(dbPath);
    const filler = join(mountPoint, "filler");
    let filled = 0;
    const attempts = await underLoad(cluster, async () => {
      filled = fillUp(filler);
      expect(statfsSync(mountPoint).bavail).toBe(0);
      await sleep(2500);
      rmSync(filler);
    });
    expect(filled).toBeGreaterThan(0);
    expect(attempts.some((attempt) => attempt.status === 503)).toBe(true);
    table.push(await expectNothingLost(cluster, attempts, ANSWER_BOUND_MS, { fault: "disk full (tmpfs), 2.5 s", processes: 1, recoveryMs: [] }));
    await expectServing(cluster);
    await gateway!.stop();
    expect(integrityOf(dbPath)).toBe("ok");
  });

  test("a lock held by another connection past the busy timeout: 503 meanwhile, served once it goes, the file intact", async () => {
    const dbPath = join(mountPoint, "gateway.db");
    const cluster = await startOn(dbPath);
    const attempts = await underLoad(cluster, async (answered) => {
      const other = new DatabaseSync(dbPath);
      try {
        // Its own wait for the gateway's write in progress, if any, to end.
        other.exec("PRAGMA busy_timeout = 5000");
        other.exec("BEGIN EXCLUSIVE");
        const lockedAt = answered().length;
        // Held while the load goes on (the gateway's writes wait their busy timeout, then give up):
        // 3 s, and on until a request answered in the meantime was refused — how soon the load's
        // writes meet the lock depends on the machine's speed — but never past 8 s.
        await sleep(3000);
        for (let waited = 3000; waited < 8000 && !answered().slice(lockedAt).some((attempt) => attempt.status === 503); waited += 100) await sleep(100);
        other.exec("ROLLBACK");
      } finally {
        other.close();
      }
    });
    const refused = attempts.filter((attempt) => attempt.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    // Once a write has waited out the busy timeout, the writes after it are refused at once rather
    // than each waiting it out in turn (every wait holds the event loop): a 503 that waited for the
    // lock took the whole busy timeout, these took a fraction of it.
    expect(refused.filter((attempt) => attempt.ms < BUSY_TIMEOUT_MS / 2).length).toBeGreaterThan(0);
    table.push(await expectNothingLost(cluster, attempts, ANSWER_BOUND_MS, { fault: "locked by another connection, 3 s until a refusal (at most 8 s)", processes: 1, recoveryMs: [] }));
    await expectServing(cluster);
    await gateway!.stop();
    expect(integrityOf(dbPath)).toBe("ok");
  });

  test("a database on a read-only volume is refused at start, saying the file is read-only", async () => {
    const dataDir = join(mountPoint, "data");
    mkdirSync(dataDir);
    const dbPath = join(dataDir, "gateway.db");
    // A gateway made the database, then the volume came back read-only.
    const first = await startGatewayProcess({ dbPath, args: ["--log-level", "warn"] });
    await first.stop();
    execFileSync("mount", ["-o", "remount,ro", mountPoint]);
    try {
      const started = startGatewayProcess({ dbPath, args: ["--log-level", "warn"] });
      await expect(started).rejects.toThrow(/read-only/);
    } finally {
      execFileSync("mount", ["-o", "remount,rw", mountPoint]);
    }
  });
});
