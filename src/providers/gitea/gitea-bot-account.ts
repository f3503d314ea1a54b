// The login of the App's own Gitea account: only its comments can carry a trusted claim marker, and its deliveries are the App's.
import type { GiteaClient } from "./gitea-client.js";
import type { RequestCounter } from "./gitea-routes.js";

export interface GiteaBotAccount {
  /** `GET /user` with the App's token, once per process (a failed read is tried again next time). */
  login(counter?: RequestCounter): Promise<string>;
}

export function giteaBotAccount(client: GiteaClient): GiteaBotAccount {
  let known: Promise<string> | null = null;
  return {
    login(counter) {
      known ??= client.getUser(undefined, counter).then((user) => user.login);
      const reading = known;
      reading.catch(() => {
        if (known === reading) known = null;
      });
      return reading;
    },
  };
}
