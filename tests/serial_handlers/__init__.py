"""pyserial URL handlers for tests (``serial.protocol_handler_packages``)."""
