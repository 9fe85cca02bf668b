// The trip-scoring service as `npm start` runs it: production and sandbox side by side in one process,
// each with its public API, its private ingest endpoint and its scoring worker, on the embedded SQLite
// store (or PostgreSQL when configured), scoring against a road graph. The sandbox is filled with a
// simulated fleet through the ingest endpoint on first start, in the background.
import { connectRedis, createLogger, loadConfig, type Redis, runMain } from '@svc/platform';
import { tripsConfigSpec } from './config.ts';
import { threadUploadPreparer } from './ingest/upload-preparer.ts';
import { issueSandboxStartToken, prepareSandbox, type SandboxSetup } from './sandbox/seed-sandbox.ts';
import { databaseOptionsFor, type RunningEnvironment, startEnvironment } from './service/environment-service.ts';
import { ensureRoadGraph } from './service/road-graph.ts';
import { startScorer } from './service/scorer-factory.ts';

await runMain('trips', async () => {
  const config = loadConfig(tripsConfigSpec);
  const logger = createLogger({ level: config.logLevel, name: 'trips' });
  const graph = await ensureRoadGraph(config, logger);
  const scorer = await startScorer(graph.file, config.scoringThreads, logger);
  // One set of ingest threads for both environments: preparing an upload depends on nothing of either.
  const preparer = await threadUploadPreparer({ threads: config.ingestThreads });
  const redis: Redis | undefined = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;

  const running: RunningEnvironment[] = [];
  let sandbox: SandboxSetup | undefined;
  let startToken: Awaited<ReturnType<typeof issueSandboxStartToken>> | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    let code = 0;
    try {
      await sandbox?.stop();
      await Promise.all(running.map((env) => env.shutdown()));
      await scorer?.close();
      await preparer.close();
      redis?.disconnect();
    } catch (err) {
      code = 1;
      logger.error({ err }, 'shutdown failed');
    }
    process.exitCode = code;
    setTimeout(() => process.exit(code), 1000).unref();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop(signal));

  try {
    for (const environment of ['production', 'sandbox'] as const) {
      running.push(await startEnvironment({ environment, config, logger, scorer, redis, preparer }));
    }
    const sandboxEnv = running[1]!;
    sandbox = await prepareSandbox({
      database: sandboxEnv.database,
      dataDir: config.dataDir,
      graphFile: graph.file,
      ingestUrl: sandboxEnv.ingestUrl,
      tripCount: config.sandboxSeedTrips,
      logger,
    });
    startToken = await issueSandboxStartToken(sandboxEnv.database);
  } catch (err) {
    await Promise.all(running.map((env) => env.shutdown().catch(() => {})));
    await scorer?.close();
    await preparer.close();
    redis?.disconnect();
    throw err;
  }

  const [production, sandboxEnv] = running as [RunningEnvironment, RunningEnvironment];
  if (!sandbox || !startToken) throw new Error('the sandbox did not start');
  const lines = [
    '',
    'Trip scoring service is running.',
    `  production API   ${production.apiUrl}/v1   (${databaseOptionsFor(config, 'production').description})`,
    `  sandbox API      ${sandboxEnv.apiUrl}/v1   (${databaseOptionsFor(config, 'sandbox').description})`,
    `  ingest (private) production ${production.ingestUrl}/ingest/v1, sandbox ${sandboxEnv.ingestUrl}/ingest/v1`,
    `  OpenAPI          ${sandboxEnv.apiUrl}/openapi.json`,
    `  road graph       ${graph.description}${scorer ? '' : ' (SCORING ENGINE UNAVAILABLE: uploads stay queued)'}`,
    '',
    `Sandbox token (admin over ${startToken.fleets.join(', ')}; issued by this start, valid until ${new Date(startToken.expiresAtMs).toISOString().slice(0, 10)}):`,
    `  ${startToken.token}`,
    '',
    'Try:',
    `  curl -H "Authorization: Bearer ${startToken.token}" ${sandboxEnv.apiUrl}/v1/trips`,
    `  curl -H "Authorization: Bearer ${startToken.token}" "${sandboxEnv.apiUrl}/v1/vehicles?sort=score&limit=10"   (riskiest vehicles first)`,
    `  curl -H "Authorization: Bearer ${startToken.token}" ${sandboxEnv.apiUrl}/v1/fleets   (each fleet as a whole)`,
    '',
    sandbox.seedingStarted && sandbox.resumed
      ? `An earlier start stopped before the sandbox was seeded: its ${config.sandboxSeedTrips} simulated trips are being sent again through the sandbox ingest endpoint in the background (those already stored count as duplicates), and scored as they arrive.`
      : sandbox.seedingStarted
        ? `First start: ${config.sandboxSeedTrips} simulated trips are being sent through the sandbox ingest endpoint in the background and scored as they arrive; /v1/trips fills up over the next minutes.`
        : sandbox.seeded
          ? 'The sandbox is seeded.'
          : config.sandboxSeedTrips === 0
            ? 'The sandbox holds its simulated fleets, vehicles and drivers but no trips (TRIPS_SANDBOX_SEED_TRIPS=0): send some through its ingest endpoint, or start with a count to seed it.'
            : 'Another node sharing this sandbox store is seeding it; /v1/trips fills up over the next minutes.',
    'Production starts empty: create a fleet, vehicles and a token with `npx trips --help` (e.g. `npx trips fleets create --name Acme`).',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
