/**
 * `npm run worker`: the background workers alone, for deployments that run them apart from the
 * web server. Needs DATABASE_URL. SIGTERM/SIGINT stop pg-boss gracefully, then exit.
 */
// First: on a Node older than the app supports, stop with one line before anything else loads.
import "../app/server/node-version";
import { bootServices } from "../app/server/boot";
import { logger } from "../app/utils/logger.server";

const services = await bootServices({ role: "worker" });
if (services) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger().info({ signal }, "worker shutting down");
    await services.stop();
    logger().info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  console.log(`Change Management workers are running (Node ${process.version})`);
}
