// Test-wide setup: bring Node 20 what the test tooling expects from Node 22, and keep every test off the network.

// nock 15 intercepts through @mswjs/interceptors, which calls Promise.withResolvers (Node >= 22);
// the App supports Node 20, so the tests bring the one missing function along.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

// No test reaches the internet: GitHub is nock's (api.github.com) or the simulator's, and the App,
// the simulator and Redis all listen on loopback, which stays open. nock is imported after the
// polyfill above, which it needs.
const { default: nock } = await import("nock");
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
// nock intercepts on import, at the socket level: a raw socket is held until its request head is
// complete (a slow-headers client never reaches the server) and fetch's keep-alive sockets behave
// differently. So interception is off until a test loads the GitHub fakes (github-fake/), which turn
// it on; the policy above holds from then on.
nock.restore();
