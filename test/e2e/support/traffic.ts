/** What a client sending requests without pause saw. */
export interface TrafficReport {
  sent: number;
  failed: number;
  /** Status of each failed request, in order (0: no answer). */
  failures: number[];
}

/**
 * A client that sends model requests one after another, each with whatever secret `secretNow()`
 * returns at that moment (the one the stack last exported), until stopped.
 */
export function startTraffic(baseUrl: string, secretNow: () => string, pauseMs = 5): { stop(): Promise<TrafficReport> } {
  const report: TrafficReport = { sent: 0, failed: 0, failures: [] };
  let running = true;
  const loop = (async () => {
    while (running) {
      let status = 0;
      try {
        const response = await fetch(`${baseUrl}/v1/responses`, {
          method: "POST",
          headers: { authorization: `Bearer ${secretNow()}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "echo-1", input: "ping" }),
        });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 0;
      }
      report.sent++;
      if (status !== 200) {
        report.failed++;
        report.failures.push(status);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return report;
    },
  };
}
