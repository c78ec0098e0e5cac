package presenceguard

import "context"

func contextWith(ctx context.Context, report *Report) context.Context {
	return context.WithValue(ctx, reportKey{}, report)
}
