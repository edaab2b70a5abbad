"""Guildhall rules services: the pure rules kernel, one package per game, and the gRPC server."""
