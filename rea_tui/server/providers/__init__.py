"""Analysis providers: where documents and procedure inventories come from."""
