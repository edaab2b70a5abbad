"""The gateway's pure domain: what a match is, independent of gRPC and Redis."""
