/**
 * `node bench/promoted-bytes.ts [--requests 30000] [--connections 64] [--warmup 10] [--modes json,stream]
 * [--database pglite|postgres] [--flush-ms 1000] [--gateway-flags a,b]`: the bytes per request that the
 * gateway's scavenges promote to V8's old generation, and how many scavenges and full collections a window
 * of requests takes. The fake upstream and the gateway start as `bench/windowed-gateway.ts` starts them
 * (the gateway in its own process, with its production flags and a BYOK credential); after a warm-up, V8's
 * `GCProfiler` runs in the gateway over a fixed number of requests of each mode and reads the heap's spaces
 * around every collection. A scavenge's promotion is the growth of the old and large-object spaces across it
 * (what `--trace-gc-nvp` calls `promoted`, to a few percent).
 *
 * Promoted bytes are what grows the old generation between full collections, and so the peak heap that RSS
 * keeps (bench/JOURNAL.md: the soak's climb). A gateway that promotes little has scavenges that free almost
 * everything and few mark-compacts; a bare `node:http` proxy in front of the same upstream promotes 0.07-0.5 KB
 * a request. Unlike `allocation-profile.ts --survivors` (which says where surviving objects were allocated,
 * by sampling), this counts every promoted byte, so two commits compare within a few percent over 30,000
 * requests. `--flush-ms` defaults to the production flush (1 s), so queued records count as they do in
 * production.
 */
import { parseArgs } from 'node:util';
import type { ChildCollections } from './child-process.ts';
import { describeGateway, runWindow, windowModes, windowOptions, withWindowedGateway } from './windowed-gateway.ts';

const { values } = parseArgs({ options: windowOptions({ requests: '30000', flushMs: '1000' }) });

function row(mode: string, requests: number, counted: ChildCollections): string {
  const perRequest = counted.promotedBytes / requests / 1024;
  return `| ${mode} | ${requests} | ${counted.scavenges} | ${counted.markCompacts} | ${perRequest.toFixed(2)} |`;
}

async function countPromotion(): Promise<void> {
  await withWindowedGateway(values, async (gateway) => {
    console.log(`Promotion by the gateway's scavenges (V8 GCProfiler), ${describeGateway(values)}, record flush ${values['flush-ms']} ms.\n`);
    console.log('| mode | requests | scavenges | mark-compacts | promoted KB/request |');
    console.log('|---|--:|--:|--:|--:|');
    for (const mode of windowModes(values)) {
      let counted: ChildCollections | undefined;
      const result = await runWindow(gateway, values, mode, {
        onMeasureStart: () => gateway.child.startGcCount(),
        onMeasureEnd: async () => {
          counted = await gateway.child.stopGcCount();
        },
      });
      if (counted) console.log(row(mode, result.requests, counted));
    }
  });
}

await countPromotion();
