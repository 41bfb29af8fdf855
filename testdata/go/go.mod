module icount-testdata/go

go 1.26
