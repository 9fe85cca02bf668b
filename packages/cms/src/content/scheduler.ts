/**
 * Publishes scheduled (`future`) posts when their date comes, as WordPress's cron does with
 * `publish_future_post`: a timer wakes at the earliest due date, list and item reads check first (so a
 * due post is never served as scheduled), and a periodic refresh picks up posts scheduled by other
 * nodes sharing the database.
 */
import type { Logger } from '@svc/platform';
import type { ContentService } from './content-service.ts';
import { wallClockMs } from './dates.ts';

export interface FutureSchedulerOptions {
  service: ContentService;
  logger: Logger;
  /** How often the earliest due date is re-read from the database (ms). */
  refreshMs?: number;
  /**
   * Run before the timer publishes: reads the cache generations, so the options publishing uses (the default
   * category) are the current ones and not those of the last request this process served.
   */
  beforeWork?: () => Promise<void>;
}

export class FutureScheduler {
  readonly #service: ContentService;
  readonly #logger: Logger;
  readonly #refreshMs: number;
  readonly #beforeWork: () => Promise<void>;
  /** GMT millisecond of the earliest scheduled post known to this node; Infinity when none. */
  #nextDueMs = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #interval: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(options: FutureSchedulerOptions) {
    this.#service = options.service;
    this.#logger = options.logger;
    this.#refreshMs = options.refreshMs ?? 60_000;
    this.#beforeWork = options.beforeWork ?? (async () => {});
  }

  /** Starts the periodic refresh. */
  start(): void {
    if (this.#interval || this.#stopped) return;
    this.#interval = setInterval(() => void this.refresh(), this.#refreshMs);
    this.#interval.unref();
  }

  /** Stops every timer. */
  stop(): void {
    this.#stopped = true;
    if (this.#interval) clearInterval(this.#interval);
    if (this.#timer) clearTimeout(this.#timer);
    this.#interval = null;
    this.#timer = null;
  }

  /** A post was scheduled for `gmt` on this node. */
  scheduled(gmt: string): void {
    const ms = wallClockMs(gmt);
    if (!Number.isNaN(ms) && ms < this.#nextDueMs) {
      this.#nextDueMs = ms;
      this.#arm();
    }
  }

  /** Publishes what is due, if anything is (cheap when nothing is: no database query). */
  async publishDue(): Promise<void> {
    if (this.#service.now().getTime() < this.#nextDueMs) return;
    this.#running ??= (async () => {
      try {
        const published = await this.#service.publishDuePosts();
        if (published.length > 0) this.#logger.info({ posts: published }, 'published scheduled posts');
        await this.refresh();
      } finally {
        this.#running = null;
      }
    })();
    await this.#running;
  }

  /** Re-reads the earliest scheduled date and arms the timer for it. */
  async refresh(): Promise<void> {
    if (this.#stopped) return;
    try {
      const next = await this.#service.nextScheduledDate();
      this.#nextDueMs = next ? wallClockMs(next) : Number.POSITIVE_INFINITY;
      this.#arm();
    } catch (err) {
      // A closed or unreachable database: try again at the next refresh (or stop when shut down).
      this.#logger.debug({ err }, 'scheduled posts refresh failed');
    }
  }

  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#stopped || !Number.isFinite(this.#nextDueMs)) return;
    const delay = Math.max(0, Math.min(this.#nextDueMs - this.#service.now().getTime() + 50, 2 ** 31 - 1));
    this.#timer = setTimeout(() => {
      // No request read the generations for this work (reads of posts call publishDue() after theirs).
      this.#beforeWork()
        .then(() => this.publishDue())
        .catch((err) => this.#logger.warn({ err }, 'publishing scheduled posts failed'));
    }, delay);
    this.#timer.unref();
  }
}
