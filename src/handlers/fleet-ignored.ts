// A person's act that did nothing because its login is a fleet login: one line for the operator (docs/security.md#trust-model).
import type { Logger } from "pino";

/**
 * Notes, on the delivery's log, that an act only a person's counts for was ignored because `login`
 * runs agents here (a Bot, `agents.logins`, or a login that once held an agent claim: that lasts).
 */
export function logFleetIgnored(log: Logger | undefined, act: string, login: string): void {
  log?.info(
    { login },
    `${act} ignored: ${login} is a fleet login (it runs agents here), so its acts are no person's`,
  );
}
