set(unity_alone
)
