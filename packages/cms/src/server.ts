/** The CMS service entry, started by `npm start` (scripts/start.ts) and `npx cms serve`. */
import { runMain } from '@svc/platform';
import { startCms } from './serve.ts';

await runMain('cms', startCms);
