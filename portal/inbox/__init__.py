"""The inbox: the open tasks of the signed-in member, most urgent first, with bulk
approve and reject (through ``documents.bulk``)."""
