package e03

import ()
