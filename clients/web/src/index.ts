// @guildhall/web: the Guildhall gateway over Connect, typed (see README.md).
export * from "./client.js";
export * from "./errors.js";
export * from "./games.js";
export * from "./verify.js";
export { GatewayService } from "./gen/guildhall/gateway/v1/gateway_pb.js";
