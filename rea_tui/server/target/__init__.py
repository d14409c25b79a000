"""What is opened: targets, their files and formats, switching between them."""
