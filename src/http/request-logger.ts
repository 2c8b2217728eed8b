/**
 * Each request's logger (`request.log`), made from the service's logger (Fastify itself has none:
 * build-app.ts), and only when something logs through it. Fastify makes
 * a pino child per request to bind its id; with the service's redaction paths that child costs
 * ~2 µs (pino runs the bindings through the redaction, and a route's `logLevel` sets a level on
 * it), spent on every request although almost none logs anything but its request line, which
 * has a logger of its own (build-app.ts). Lines written through it are the same: same bindings,
 * same level, same redaction.
 */
import type { FastifyBaseLogger, FastifyServerOptions, RouteOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilentOrString, Logger } from 'pino';

class LazyRequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): Logger {
    return (this.#made ??= this.#parent.child(this.#bindings, this.#options));
  }

  get level(): LevelWithSilentOrString {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    if (this.#made !== undefined) return this.#made.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    const threshold = values[this.level];
    const asked = values[level];
    return asked !== undefined && threshold !== undefined && asked >= threshold;
  }

  #log(level: Level, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.#logger()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void { this.#log('fatal', args); }
  error(...args: unknown[]): void { this.#log('error', args); }
  warn(...args: unknown[]): void { this.#log('warn', args); }
  info(...args: unknown[]): void { this.#log('info', args); }
  debug(...args: unknown[]): void { this.#log('debug', args); }
  trace(...args: unknown[]): void { this.#log('trace', args); }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: request loggers made from `parent` when first used. The logger
 * Fastify hands the factory is its own, which is none (a no-op) in the service.
 */
export function requestLoggersOf(parent: Logger): NonNullable<FastifyServerOptions['childLoggerFactory']> {
  return (_fastifyLogger, bindings, options) => new LazyRequestLogger(parent, bindings, options as ChildLoggerOptions) as unknown as FastifyBaseLogger;
}

/**
 * An onRoute hook refusing a route whose `logLevel` the logger does not know. Fastify checks it
 * only against a logger of its own, which the service's applications do not have: a misspelt level
 * would silence the route's request lines and request.log without a word.
 */
export function refuseUnknownLogLevels(logger: Logger): (route: RouteOptions) => void {
  return (route) => {
    if (route.logLevel && logger.levels.values[route.logLevel] === undefined) {
      throw new Error(`${String(route.method)} ${route.url}: unknown logLevel '${route.logLevel}'`);
    }
  };
}
