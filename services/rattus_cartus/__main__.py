from services.server import main

main("rattus_cartus")
