from services import runtime

runtime.choose_grpc_io()  # first: gRPC reads GRPC_EXPERIMENTS once, when it is imported

from services.server import main  # noqa: E402

main("ankh_morpork")
