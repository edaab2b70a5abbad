from services.server import main

main("ankh_morpork")
