"""The traders' side: the cabinet's pages, the traders' API, devices and their bank
notifications. Above `orders`: every trader action goes through `orders` services."""
