// Test-wide setup: keep every test off the network.

// No test reaches the internet: GitHub is nock's (api.github.com) or the simulator's, and the App,
// the simulator and Redis all listen on loopback, which stays open.
import nock from "nock";

nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host));
// nock intercepts on import, at the socket level: a raw socket is held until its request head is
// complete (a slow-headers client never reaches the server) and fetch's keep-alive sockets behave
// differently. So interception is off until a test loads the GitHub fakes (github-fake/), which turn
// it on; the policy above holds from then on.
nock.restore();
