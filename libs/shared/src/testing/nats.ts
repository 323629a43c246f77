/**
 * The NATS server the jest global setup found reachable, or undefined when there is none
 * (then the JetStream tests are skipped with the reason printed; REQUIRE_NATS=1 fails instead).
 */
export function natsUrlForTests(): string | undefined {
  return process.env.TEST_NATS_URL;
}
